notice foo
(42)
