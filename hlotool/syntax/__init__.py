"""Text-syntax helpers both languages share: Lark grammar loading and errors, C-style strings."""
