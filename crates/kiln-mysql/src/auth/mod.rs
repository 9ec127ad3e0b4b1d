//! Authentication plugins: scrambles, password hashes, RSA key exchange.
