-- Share of a model's ratings that tag each failure mode (any severity), and at moderate or worse.
SELECT model_source,
       failure_mode_id,
       count(*) AS ratings,
       avg(CAST(present AS DOUBLE)) AS share_present,
       avg(CASE WHEN severity_rank >= 2 THEN 1.0 ELSE 0.0 END) AS share_moderate_or_worse
FROM failure_modes
GROUP BY model_source, failure_mode_id
ORDER BY model_source, failure_mode_id;
