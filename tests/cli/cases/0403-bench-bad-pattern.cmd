bench frobnicate
