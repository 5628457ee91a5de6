//! The store suite on both backends: each case in `cases` runs once on a fresh SQLite file and
//! once on a fresh PostgreSQL database (`DEFT_TEST_DATABASE_URL`; the PostgreSQL tests fail,
//! never skip, when it is unset — `source scripts/postgres.sh` or run `scripts/test.sh`).

// The shared cases are test code: an unwrap that fails is a failing test.
#[allow(clippy::unwrap_used)]
mod cases;
mod harness;

/// Generates `sqlite::<case>` and `postgres::<case>` tests. Cases after `with_url:` also get the
/// database URL.
macro_rules! on_both_backends {
    ($($case:ident),* $(,)?; with_url: $($url_case:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let db = crate::harness::sqlite().await;
                    crate::cases::$case(&db.store).await;
                    db.store.close().await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $url_case() {
                    let db = crate::harness::sqlite().await;
                    crate::cases::$url_case(&db.store, &db.url).await;
                    db.store.close().await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    crate::harness::with_postgres(|store, _url| async move {
                        assert_eq!(store.backend(), deft_store::Backend::Postgres);
                        crate::cases::$case(&store).await;
                    })
                    .await;
                }
            )*
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $url_case() {
                    crate::harness::with_postgres(|store, url| async move {
                        crate::cases::$url_case(&store, &url).await;
                    })
                    .await;
                }
            )*
        }
    };
}

on_both_backends!(
    meta_upsert,
    secrets_upsert_list_by_name_and_delete,
    api_tokens_by_name_hash_revocation_and_use,
    api_token_calls_are_kept_newest_and_bounded,
    user_conflict,
    session_expiry_purge,
    conversation_crud_and_order,
    append_caps_at_60_and_totals_usage,
    reasoning_truncated_on_char_boundary,
    steps_json_round_trip,
    concurrent_appends_serialize,
    runs_create_finish_unfinished,
    abandoned_runs_are_taken_over_once,
    events_idempotent_filtered_ordered,
    task_crud_and_listing,
    schedule_crud_and_claim,
    concurrent_claims_have_one_winner,
    task_runs_one_running_per_task,
    draft_runs_one_at_a_time,
    task_run_steps_and_counts,
    task_runs_paged_newest_first,
    task_runs_total_agrees_with_its_page,
    task_list_total_agrees_with_its_page,
    task_run_events_ordered_idempotent_and_purged,
    task_runs_keep_their_server_and_its_heartbeat,
    run_history_sorts_and_pages_with_ties,
    run_history_filters_alone_and_combined,
    run_history_edges_empty_deleted_and_foreign_cursors,
    retention_removes_exactly_the_ended_runs_started_before,
    experiences_crud_generation_and_hits,
    memory_lists_total_agrees_with_its_page,
    audit_marks_pending_and_a_person_decides,
    actions_crud_names_and_hits,
    run_notes_append_in_order,
    jobs_are_claimed_once,
    notifications_have_a_read_state_per_reader,
    notifications_are_pruned_to_the_newest,
    a_notification_is_updated_in_place,
    an_unread_notification_about_a_device_is_found,
    tasks_keep_their_notification_settings,

    task_versions_on_create_update_and_restore,
    refused_saves_write_no_version,
    task_runs_record_the_version_they_ran,
    task_list_filters_by_folder_and_tag,
    task_folders_and_tags_are_validated,
    an_import_is_all_or_nothing,
    webhooks_crud_and_secret,
    webhook_deliveries_are_claimed_once_and_paged,
    servers_register_beat_and_stop,
    leases_have_one_holder_and_epochs_only_rise,
    racing_servers_get_one_lease,
    stale_fences_write_nothing,
    stale_fences_refuse_a_task_runs_steps_events_and_end,
    a_run_taken_over_refuses_its_old_owners_writes,
    fleet_jobs_go_once_to_the_holder,
    writes_wake_listeners_and_queued_jobs_can_be_withdrawn;
    with_url: corrupt_json_is_reported, corrupt_task_rows_are_reported,
    any_branchs_database_gains_the_migrations_it_lacks,
);
