spec DGX-H100:4
