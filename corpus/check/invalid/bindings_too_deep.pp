# `when` blocks nest at most 32 levels and declared types at most 16, so the model's JSON
# stays within 100 levels (every reader can load it). Both limits are passed here.
bindings bindings_too_deep {
  bind Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[String]]]]]]]]]]]]]]]], 'deep_type' to []
  bind Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[Array[String]]]]]]]]]]]]]]], 'deepest_allowed' to []
  when environment production {
   when environment production {
    when environment production {
     when environment production {
      when environment production {
       when environment production {
        when environment production {
         when environment production {
          when environment production {
           when environment production {
            when environment production {
             when environment production {
              when environment production {
               when environment production {
                when environment production {
                 when environment production {
                  when environment production {
                   when environment production {
                    when environment production {
                     when environment production {
                      when environment production {
                       when environment production {
                        when environment production {
                         when environment production {
                          when environment production {
                           when environment production {
                            when environment production {
                             when environment production {
                              when environment production {
                               when environment production {
                                when environment production {
                                 when environment production {
                                  when environment production {
                                   bind 'too_deep' to 1
                                  }
                                 }
                                }
                               }
                              }
                             }
                            }
                           }
                          }
                         }
                        }
                       }
                      }
                     }
                    }
                   }
                  }
                 }
                }
               }
              }
             }
            }
           }
          }
         }
        }
       }
      }
     }
    }
   }
  }
}
