bench ib_send_lat -p 70000 node-b
