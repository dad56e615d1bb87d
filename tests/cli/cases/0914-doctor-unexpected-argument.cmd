doctor extra
