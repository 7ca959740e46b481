-- Ratings, mean overall judgment and its N/A rate per model (ratings only, not "cannot rate" rows).
SELECT model_source,
       count(*) AS ratings,
       count(DISTINCT rater_id) AS raters,
       count(DISTINCT task_id) AS tasks,
       avg(overall_judgment) AS mean_overall,
       avg(CAST(overall_judgment_na AS DOUBLE)) AS overall_na_rate
FROM ratings
WHERE record_kind = 'rating'
GROUP BY model_source
ORDER BY model_source;
