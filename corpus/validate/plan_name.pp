class plan {}
