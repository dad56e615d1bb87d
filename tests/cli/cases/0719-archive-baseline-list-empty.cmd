archive baseline list
