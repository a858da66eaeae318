if $x { class a {} }
