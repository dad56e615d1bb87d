model dgx-a100:2 --ppn 1 --op all_reduce --algo ring --proto ll128 --tuner-only --explain 1G
