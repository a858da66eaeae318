1 + file {"a":}
