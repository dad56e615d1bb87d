doctor -o /nonexistent-fabtune-dir/report.html
