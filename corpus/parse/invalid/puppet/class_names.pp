class class { }
class 'quoted' { }
