class a($1) {}
