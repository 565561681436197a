convert tests/trace/data/frames-demo.c -o -
