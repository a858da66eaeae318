$r = $x ? { /^a/ => "A", default => undef }
$s = $y ? 1 => 2
