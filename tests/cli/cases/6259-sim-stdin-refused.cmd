sim -
