archive check
