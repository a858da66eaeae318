class epsilon {}
