# A heredoc whose end line says `|-` stops before its last line end: blanks at the end of that
# line are its text's own, and stay (the fuzzer found them trimmed, which changed the program).
class m {
      $json = @("JSON"/L)
      { "host": "${::fqdn}" }    
      |-JSON
        $motd = @(END)
    Welcome  
    |- END
  notice($json, $motd)
}
