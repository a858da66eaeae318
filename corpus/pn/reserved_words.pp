private
attr
