version --bogus
