spec aws-p5e:2 --json
