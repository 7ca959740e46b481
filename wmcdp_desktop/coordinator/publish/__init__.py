"""What is published from the models: the JSON Schemas and the field tables of FORMATS.md."""
