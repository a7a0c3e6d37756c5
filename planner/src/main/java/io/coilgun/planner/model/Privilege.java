package io.coilgun.planner.model;

/** What a GRANT gives: SELECT (metrics, streams, system tables), INSERT (streams), CREATE (on schema public). */
public enum Privilege { SELECT, INSERT, CREATE }
