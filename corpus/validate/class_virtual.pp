@class { "a": }
