node /^web\d+$/, "db.example.com" inherits base { }
node default {}
