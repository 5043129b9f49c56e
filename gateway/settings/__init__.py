"""Every setting: one table of rows (``table`` lists them; each row names its setting once,
with its typed default or reader), the readers of the structured ones, and ``config``,
which reads every row by its type into ``Config``."""
