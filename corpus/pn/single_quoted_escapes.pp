$s = 'a\'b\\c\n'
