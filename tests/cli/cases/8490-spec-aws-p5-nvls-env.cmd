spec aws-p5:4
