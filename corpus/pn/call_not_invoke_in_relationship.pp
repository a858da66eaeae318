with(1) |$x| {} -> foo {"a":}
