bench all_reduce -o mulsum -d fp8
