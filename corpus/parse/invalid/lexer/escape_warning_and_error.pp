# Warnings (unknown escapes) are reported alongside errors.
$a = "\q \u12"
$b = = 1
