case $x { "a": {} /b/: {} }
