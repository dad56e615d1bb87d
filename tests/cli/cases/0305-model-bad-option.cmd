model dgx-h100 --bogus
