class delta {}
