-- DuckDB: the two tables of a collection as views (local files; for object storage put the URL in the path,
-- e.g. 's3://my-bucket/study-1/ratings.parquet' after `INSTALL httpfs; LOAD httpfs;` and your credentials).
CREATE VIEW ratings AS SELECT * FROM read_parquet('ratings.parquet');
CREATE VIEW failure_modes AS SELECT * FROM read_parquet('failure_modes.parquet');
