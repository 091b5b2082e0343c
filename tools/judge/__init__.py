"""durak judge: rulings on an action in a position, under one variant or all of them."""
