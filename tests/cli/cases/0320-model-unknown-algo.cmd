model dgx-h100 --algo ringg
