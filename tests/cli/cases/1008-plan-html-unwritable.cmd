plan dgx-h100:4 --model llama3-8b --tp 8 --pp 2 --batch 16 --html /nonexistent/dir/plan.html
