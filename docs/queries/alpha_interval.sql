-- Krippendorff's alpha (interval) of the overall judgment, in plain SQL: one pass over the scores.
-- D_o sums, per task with m >= 2 scores, the squared differences of its ordered pairs over (m - 1);
-- D_e the same over every pair of pairable scores. Sum over ordered pairs i != j of (y_i - y_j)^2 is
-- 2 m sum(y^2) - 2 sum(y)^2. N/A is null and left out, as in the report.
WITH scored AS (
    SELECT task_id, CAST(overall_judgment AS DOUBLE) AS y
    FROM ratings
    WHERE record_kind = 'rating' AND overall_judgment IS NOT NULL
),
units AS (
    SELECT task_id, count(*) AS m, sum(y) AS s, sum(y * y) AS ss
    FROM scored
    GROUP BY task_id
    HAVING count(*) >= 2
),
totals AS (
    SELECT sum((2 * m * ss - 2 * s * s) / (m - 1)) AS within_pairs,
           CAST(sum(m) AS DOUBLE) AS n, sum(s) AS s, sum(ss) AS ss
    FROM units
)
SELECT 1 - (within_pairs / n) / ((2 * n * ss - 2 * s * s) / (n * (n - 1))) AS alpha_interval,
       n AS pairable_values
FROM totals;
