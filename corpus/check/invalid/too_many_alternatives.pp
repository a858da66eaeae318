# Each `or` copies the bindings it encloses; nested, they multiply: 2 x 2 x 2 x 2 x 2 x 2 x 2
# = 128 copies of `bind 'x' to 1`, more than the 64 a binding may have.
bindings too_many_alternatives {
  when c1 'a' or c1 'b' {
    when c2 'a' or c2 'b' {
      when c3 'a' or c3 'b' {
        when c4 'a' or c4 'b' {
          when c5 'a' or c5 'b' {
            when c6 'a' or c6 'b' {
              when c7 'a' or c7 'b' {
                bind 'x' to 1
              }
            }
          }
        }
      }
    }
  }
  when c1 'a' or c1 'b' or c1 'c' or c1 'd' { bind 'y' to 1 }
}
