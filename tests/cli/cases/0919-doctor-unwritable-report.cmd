doctor --root tests/fixtures/sysfs/no-rdma --no-bench -o /nonexistent/dir/report.html
