"""Encryption at rest for held-out studies (issue 29): passphrases, the encrypted bundle, the rater's data
folder cipher and the export sealed to the coordinator's public key.

Built on the ``cryptography`` package only (AES-256-GCM, scrypt, HKDF-SHA256, X25519). No Qt, no rater or
coordinator imports. The file formats are described byte by byte in docs/FORMATS.md.
"""
