case $x { default: {} default: {} }
