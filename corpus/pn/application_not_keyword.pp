application foo {}
