node "a b" {}
