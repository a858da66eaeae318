class m {
      $text = @(END)
    Written as is, # not a comment
	  with its margin
    | END
        $json = @("JSON"/L)
      { "host": "${::fqdn}" }
      |-JSON
  notice("multi
      line  
   string")
}
