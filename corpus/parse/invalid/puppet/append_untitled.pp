file { mode +> '0644' }
