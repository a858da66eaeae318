type Runtime[ruby, 'X'] = [/a/, 'b']
