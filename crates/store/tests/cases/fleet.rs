//! The fleet: servers, device leases with their epochs, fenced writes and the job queue.

use std::collections::BTreeMap;

use deft_protocol::DoneStatus;
use deft_store::{
    DeviceLease, Fence, FleetJobState, FleetServer, LeaseTake, NewFleetJob, Store, StoreError,
};

use super::runs::run;
use super::usage;

const TTL: i64 = 10_000;

fn server(id: &str, at_ms: i64) -> FleetServer {
    FleetServer {
        id: id.into(),
        name: format!("host-{id}:8030"),
        address: format!("http://127.0.0.1:80{id}"),
        version: "0.1.0".into(),
        started_at_ms: at_ms,
        heartbeat_at_ms: at_ms,
        stopped_at_ms: None,
    }
}

fn taken(take: LeaseTake) -> DeviceLease {
    match take {
        LeaseTake::Taken(lease) => lease,
        LeaseTake::Held(holder) => panic!("expected the lease, {holder:?} holds it"),
    }
}

pub async fn servers_register_beat_and_stop(store: &Store) {
    store.register_server(&server("b", 1_000)).await.unwrap();
    store.register_server(&server("a", 1_000)).await.unwrap();
    store.heartbeat_server("a", 4_000).await.unwrap();
    let err = store.heartbeat_server("nobody", 4_000).await.unwrap_err();
    assert!(matches!(err, StoreError::NotFound(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "no server with id \"nobody\" is registered"
    );

    taken(store.take_lease("pc1", "a", 4_000, TTL).await.unwrap());
    store.server_stopped("a", 5_000).await.unwrap();
    let servers = store.fleet_servers().await.unwrap();
    assert_eq!(
        servers,
        vec![
            FleetServer {
                heartbeat_at_ms: 4_000,
                stopped_at_ms: Some(5_000),
                ..server("a", 1_000)
            },
            server("b", 1_000),
        ],
        "by name; a's stop is recorded"
    );
    assert!(
        store.live_leases(5_000).await.unwrap().is_empty(),
        "a clean stop lets go of its leases"
    );
    // a restart registers again and clears the stop mark
    store.register_server(&server("a", 9_000)).await.unwrap();
    let a = &store.fleet_servers().await.unwrap()[0];
    assert_eq!((a.started_at_ms, a.stopped_at_ms), (9_000, None));
    assert!(store.forget_server("b").await.unwrap());
    assert!(!store.forget_server("b").await.unwrap());
    assert_eq!(store.fleet_servers().await.unwrap().len(), 1);
}

pub async fn leases_have_one_holder_and_epochs_only_rise(store: &Store) {
    let first = taken(store.take_lease("pc1", "a", 1_000, TTL).await.unwrap());
    assert_eq!(
        first,
        DeviceLease {
            device_id: "pc1".into(),
            server_id: "a".into(),
            epoch: 1,
            acquired_at_ms: 1_000,
            expires_at_ms: 11_000,
            details: None,
        }
    );
    // its holder describes it for the others; nobody else can
    assert!(
        store
            .describe_lease("pc1", "a", "{\"profile\":\"shell\"}")
            .await
            .unwrap()
    );
    assert!(!store.describe_lease("pc1", "b", "{}").await.unwrap());
    // the holder renews in its epoch; another server is refused while it lasts
    let renewed = taken(store.take_lease("pc1", "a", 5_000, TTL).await.unwrap());
    assert_eq!(
        (renewed.epoch, renewed.acquired_at_ms, renewed.expires_at_ms),
        (1, 1_000, 15_000)
    );
    match store.take_lease("pc1", "b", 14_999, TTL).await.unwrap() {
        LeaseTake::Held(holder) => assert_eq!(holder, renewed),
        LeaseTake::Taken(l) => panic!("b took a live lease: {l:?}"),
    }
    // lapsed: b takes it in the next epoch
    let moved = taken(store.take_lease("pc1", "b", 15_000, TTL).await.unwrap());
    assert_eq!(
        (moved.server_id.as_str(), moved.epoch, moved.acquired_at_ms),
        ("b", 2, 15_000)
    );
    assert_eq!(moved.details, None, "a new holder describes it anew");
    // a's renewal of everything it holds no longer includes pc1
    taken(store.take_lease("pc2", "a", 15_000, TTL).await.unwrap());
    let renewed = store.renew_leases("a", 16_000, TTL).await.unwrap();
    assert_eq!(
        renewed
            .iter()
            .map(|l| l.device_id.as_str())
            .collect::<Vec<_>>(),
        ["pc2"]
    );
    assert_eq!(renewed[0].expires_at_ms, 26_000);
    // releasing keeps the epoch: the next tenure, even b's own again, is epoch 3
    assert!(
        !store.release_lease("pc1", "a", 2).await.unwrap(),
        "not a's"
    );
    assert!(
        !store.release_lease("pc1", "b", 1).await.unwrap(),
        "not that epoch"
    );
    assert!(store.release_lease("pc1", "b", 2).await.unwrap());
    assert_eq!(
        store
            .live_leases(16_000)
            .await
            .unwrap()
            .iter()
            .map(|l| l.device_id.as_str())
            .collect::<Vec<_>>(),
        ["pc2"]
    );
    let again = taken(store.take_lease("pc1", "b", 17_000, TTL).await.unwrap());
    assert_eq!(again.epoch, 3);
    // a holder whose own lease lapsed starts a new tenure too
    let late = taken(store.take_lease("pc2", "a", 40_000, TTL).await.unwrap());
    assert_eq!((late.epoch, late.acquired_at_ms), (2, 40_000));
}

pub async fn racing_servers_get_one_lease(store: &Store) {
    const SERVERS: usize = 8;
    for round in 0..10_i64 {
        let device = format!("phone-{round}");
        let mut racers = tokio::task::JoinSet::new();
        for n in 0..SERVERS {
            let store = store.clone();
            let device = device.clone();
            racers.spawn(async move {
                let server = format!("s{n}");
                loop {
                    match store.take_lease(&device, &server, 1_000, TTL).await {
                        Ok(take) => return (server, take),
                        // released between its two statements: cannot happen here, but the
                        // answer says to try again
                        Err(StoreError::Conflict(_)) => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            });
        }
        let mut winners = Vec::new();
        let mut holders = Vec::new();
        while let Some(done) = racers.join_next().await {
            match done.unwrap() {
                (server, LeaseTake::Taken(lease)) => winners.push((server, lease)),
                (_, LeaseTake::Held(holder)) => holders.push(holder.server_id),
            }
        }
        assert_eq!(winners.len(), 1, "round {round}: {winners:?}");
        let (winner, lease) = &winners[0];
        assert_eq!((&lease.server_id, lease.epoch), (winner, 1));
        assert!(
            holders.iter().all(|h| h == winner),
            "{holders:?} vs {winner}"
        );
    }
}

pub async fn stale_fences_write_nothing(store: &Store) {
    let conv = store.create_conversation("fenced").await.unwrap();
    store.create_run(&run("r1", &conv.id, 1_000)).await.unwrap();
    let old = taken(store.take_lease("local", "a", 1_000, TTL).await.unwrap());
    let a = store.fenced(Fence {
        server: "a".into(),
        device: "local".into(),
        epoch: Some(old.epoch),
    });
    a.append_events("r1", &[(1, "{\"n\":1}".into())])
        .await
        .unwrap();
    // a pauses past its lease; b takes the device
    let new = taken(store.take_lease("local", "b", 20_000, TTL).await.unwrap());
    assert_eq!(new.epoch, 2);
    let err = a
        .append_events("r1", &[(2, "{\"n\":2}".into())])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Fenced(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        "this write was made under lease epoch 1 of device \"local\", which server \"b\" now \
         holds in epoch 2: it is refused, nothing was written"
    );
    let err = a
        .finish_run("r1", DoneStatus::Completed, "late", &usage(1, 1, 1), 21_000)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Fenced(_)), "{err:?}");
    assert_eq!(
        store.events("r1", 0).await.unwrap().len(),
        1,
        "nothing appended"
    );
    assert!(
        store
            .run("r1")
            .await
            .unwrap()
            .unwrap()
            .finished_at_ms
            .is_none()
    );
    // the new holder's fence writes
    let b = store.fenced(Fence {
        server: "b".into(),
        device: "local".into(),
        epoch: Some(new.epoch),
    });
    b.append_events("r1", &[(2, "{\"n\":2}".into())])
        .await
        .unwrap();
    b.finish_run(
        "r1",
        DoneStatus::Failed,
        "interrupted",
        &usage(0, 0, 0),
        21_000,
    )
    .await
    .unwrap();
    assert_eq!(store.events("r1", 0).await.unwrap().len(), 2);
    // a device never leased refuses every fenced write
    let nobody = store.fenced(Fence {
        server: "c".into(),
        device: "ghost".into(),
        epoch: Some(1),
    });
    let err = nobody
        .append_events("r1", &[(3, "{}".into())])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("which has no lease"), "{err}");
}

pub async fn fleet_jobs_go_once_to_the_holder(store: &Store) {
    const JOBS: usize = 120;
    const CLAIMERS: usize = 6;
    taken(store.take_lease("pc-a", "a", 1_000, TTL).await.unwrap());
    taken(store.take_lease("pc-b", "b", 1_000, TTL).await.unwrap());
    for n in 0..JOBS {
        let device = ["pc-a", "pc-b", "pc-none"][n % 3];
        store
            .enqueue_fleet_job(&NewFleetJob {
                id: format!("job-{n:03}"),
                device_id: device.into(),
                kind: "chat".into(),
                payload: format!("{{\"n\":{n}}}"),
                origin_server: "c".into(),
                created_at_ms: 1_000 + i64::try_from(n).unwrap(),
            })
            .await
            .unwrap();
    }
    let err = store
        .enqueue_fleet_job(&NewFleetJob {
            id: "job-000".into(),
            device_id: "pc-a".into(),
            kind: "chat".into(),
            payload: "{}".into(),
            origin_server: "c".into(),
            created_at_ms: 1_000,
        })
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");

    let mut claimers = tokio::task::JoinSet::new();
    for n in 0..CLAIMERS {
        let store = store.clone();
        let server = if n % 2 == 0 { "a" } else { "b" };
        claimers.spawn(async move {
            let mut got = Vec::new();
            loop {
                let jobs = store.claim_fleet_jobs(server, 2_000, 7).await.unwrap();
                if jobs.is_empty() {
                    return got;
                }
                got.extend(jobs.into_iter().map(|j| (server, j)));
            }
        });
    }
    let mut claimed: BTreeMap<String, (&str, deft_store::FleetJob)> = BTreeMap::new();
    while let Some(done) = claimers.join_next().await {
        for (server, job) in done.unwrap() {
            let id = job.id.clone();
            assert!(
                claimed.insert(id.clone(), (server, job)).is_none(),
                "{id} claimed twice"
            );
        }
    }
    assert_eq!(claimed.len(), JOBS / 3 * 2, "the unheld device's jobs wait");
    for (server, job) in claimed.values() {
        assert_eq!(job.state, FleetJobState::Claimed);
        assert_eq!(job.claimed_by.as_deref(), Some(*server));
        assert_eq!(job.device_id, format!("pc-{server}"));
        assert_eq!(job.lease_epoch, Some(1));
    }
    ends_and_lost_claims(store, JOBS).await;
}

/// The ends of the claimed jobs of `fleet_jobs_go_once_to_the_holder`: by their holder only;
/// a holder's lost lease interrupts its claims, once.
async fn ends_and_lost_claims(store: &Store, jobs: usize) {
    // the holder records the end; another server cannot
    let done = store
        .finish_fleet_job("job-000", "a", FleetJobState::Done, "run-1", 3_000)
        .await
        .unwrap();
    assert_eq!(
        (done.state, done.outcome.as_deref()),
        (FleetJobState::Done, Some("run-1"))
    );
    let err = store
        .finish_fleet_job("job-001", "a", FleetJobState::Done, "x", 3_000)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    let err = store
        .finish_fleet_job("job-003", "a", FleetJobState::Queued, "x", 3_000)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    // a bulky answer, once read, is forgotten; a job not ended yet is not
    assert!(!store.forget_fleet_job("job-003").await.unwrap(), "claimed");
    assert!(!store.forget_fleet_job("job-002").await.unwrap(), "queued");
    store
        .finish_fleet_job("job-006", "a", FleetJobState::Done, "an image", 3_000)
        .await
        .unwrap();
    assert!(store.forget_fleet_job("job-006").await.unwrap());
    assert!(matches!(
        store.fleet_job("job-006").await.unwrap_err(),
        StoreError::NotFound(_)
    ));
    assert!(!store.forget_fleet_job("job-006").await.unwrap(), "gone");

    // a renews; b's lease lapses and c takes pc-b: b's claimed jobs end interrupted, once
    assert_eq!(store.renew_leases("a", 10_000, TTL).await.unwrap().len(), 1);
    taken(store.take_lease("pc-b", "c", 12_000, TTL).await.unwrap());
    let lost = store
        .interrupt_lost_fleet_jobs(12_000, "b lost pc-b")
        .await
        .unwrap();
    assert_eq!(lost.len(), jobs / 3);
    assert!(
        lost.iter()
            .all(|j| j.device_id == "pc-b" && j.state == FleetJobState::Interrupted)
    );
    assert!(
        store
            .interrupt_lost_fleet_jobs(12_000, "again")
            .await
            .unwrap()
            .is_empty()
    );
    let err = store
        .finish_fleet_job("job-001", "b", FleetJobState::Done, "late", 12_500)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    // pc-none's jobs go to whoever takes it
    taken(store.take_lease("pc-none", "c", 12_000, TTL).await.unwrap());
    assert_eq!(
        store
            .claim_fleet_jobs("c", 12_000, 1_000)
            .await
            .unwrap()
            .len(),
        jobs / 3
    );
    // ended jobs are pruned once old enough; queued and claimed ones never
    assert_eq!(
        store.prune_fleet_jobs(12_000).await.unwrap(),
        1,
        "job-000 ended at 3 s"
    );
    let pruned = store.prune_fleet_jobs(i64::MAX).await.unwrap();
    assert_eq!(
        pruned,
        u64::try_from(jobs / 3).unwrap(),
        "the interrupted ones"
    );
    assert_eq!(
        store.fleet_job("job-003").await.unwrap().state,
        FleetJobState::Claimed,
        "a's claims stay"
    );
}

pub async fn writes_wake_listeners_and_queued_jobs_can_be_withdrawn(store: &Store) {
    let listener = store.listen().await.unwrap();
    assert_eq!(
        listener.is_some(),
        store.backend() == deft_store::Backend::Postgres,
        "PostgreSQL listens; SQLite has one server and nothing to wake"
    );
    let new = NewFleetJob {
        id: "job-w".into(),
        device_id: "pc9".into(),
        kind: "chat".into(),
        payload: "{}".into(),
        origin_server: "a".into(),
        created_at_ms: 1_000,
    };
    store.enqueue_fleet_job(&new).await.unwrap();
    let conv = store.create_conversation("woken").await.unwrap();
    store
        .create_run(&run("r-w", &conv.id, 1_000))
        .await
        .unwrap();
    store
        .append_events("r-w", &[(1, "{}".into())])
        .await
        .unwrap();
    assert!(
        store
            .cancel_fleet_job("job-w", "nobody took it", 2_000)
            .await
            .unwrap()
    );
    assert!(
        !store
            .cancel_fleet_job("job-w", "again", 2_000)
            .await
            .unwrap()
    );
    let job = store.fleet_job("job-w").await.unwrap();
    assert_eq!(
        (job.state, job.outcome.as_deref()),
        (FleetJobState::Failed, Some("nobody took it"))
    );
    if let Some(mut listener) = listener {
        for expected in [
            (deft_store::Channel::JobQueued, "pc9"),
            (deft_store::Channel::RunEvents, "r-w"),
        ] {
            let got = tokio::time::timeout(std::time::Duration::from_secs(10), listener.recv())
                .await
                .expect("a notification within 10 s")
                .unwrap();
            assert_eq!(got, (expected.0, expected.1.to_owned()));
        }
    }
}

pub async fn stale_fences_refuse_a_task_runs_steps_events_and_end(store: &Store) {
    let (_, run) = super::tasks::started(store, "fenced task").await;
    let old = taken(store.take_lease("pc7", "a", 1_000, TTL).await.unwrap());
    let a = store.fenced(Fence {
        server: "a".into(),
        device: "pc7".into(),
        epoch: Some(old.epoch),
    });
    let step = deft_store::TaskRunStep {
        seq: 0,
        path: "steps[0]".into(),
        step_type: "wait".into(),
        status: deft_store::StepStatus::Ok,
        started_at_ms: 1_000,
        duration_ms: 5,
        matched: None,
        healed_from: None,
        error: None,
        message: None,
        image_ids: Vec::new(),
    };
    a.append_task_run_step(&run.id, &step).await.unwrap();
    a.append_task_run_events(&run.id, &[(1, "{}".into())])
        .await
        .unwrap();
    taken(store.take_lease("pc7", "b", 20_000, TTL).await.unwrap());
    let refused = [
        a.append_task_run_step(&run.id, &deft_store::TaskRunStep { seq: 1, ..step })
            .await
            .unwrap_err(),
        a.append_task_run_events(&run.id, &[(2, "{}".into())])
            .await
            .unwrap_err(),
        a.finish_task_run(&run.id, deft_store::TaskRunStatus::Ok, None, 21_000)
            .await
            .unwrap_err(),
    ];
    for err in refused {
        assert!(matches!(err, StoreError::Fenced(_)), "{err:?}");
    }
    assert_eq!(store.task_run_steps(&run.id).await.unwrap().len(), 1);
    assert_eq!(store.task_run_events(&run.id, 0).await.unwrap().len(), 1);
    assert_eq!(
        store.task_run(&run.id).await.unwrap().status,
        deft_store::TaskRunStatus::Running
    );
}

pub async fn a_run_taken_over_refuses_its_old_owners_writes(store: &Store) {
    // a server's own device has no lease: its runs are fenced by their owner alone
    let conv = store.create_conversation("owned").await.unwrap();
    let mut record = run("r-own", &conv.id, 1_000);
    record.owner = Some("a".into());
    store.create_run(&record).await.unwrap();
    let (_, task_run) = super::tasks::started(store, "owned task").await;
    assert!(
        store
            .take_over_task_run(&task_run.id, None, "a")
            .await
            .unwrap()
    );
    let a = store.fenced(Fence {
        server: "a".into(),
        device: "local".into(),
        epoch: None,
    });
    a.append_events("r-own", &[(1, "{}".into())]).await.unwrap();
    a.append_task_run_events(&task_run.id, &[(1, "{}".into())])
        .await
        .unwrap();
    // a goes silent; b takes both runs over (once: a second taker gets false) to end them
    assert!(store.take_over_run("r-own", Some("a"), "b").await.unwrap());
    assert!(!store.take_over_run("r-own", Some("a"), "c").await.unwrap());
    assert!(
        store
            .take_over_task_run(&task_run.id, Some("a"), "b")
            .await
            .unwrap()
    );
    assert!(
        !store
            .take_over_task_run(&task_run.id, Some("a"), "c")
            .await
            .unwrap()
    );
    let refused = [
        a.append_events("r-own", &[(2, "{}".into())])
            .await
            .unwrap_err(),
        a.finish_run(
            "r-own",
            DoneStatus::Completed,
            "late",
            &usage(1, 1, 1),
            9_000,
        )
        .await
        .unwrap_err(),
        a.append_task_run_events(&task_run.id, &[(2, "{}".into())])
            .await
            .unwrap_err(),
        a.finish_task_run(&task_run.id, deft_store::TaskRunStatus::Ok, None, 9_000)
            .await
            .unwrap_err(),
    ];
    for err in &refused {
        assert!(matches!(err, StoreError::Fenced(_)), "{err:?}");
    }
    assert_eq!(
        refused[0].to_string(),
        "this write was made by server \"a\" for run \"r-own\", which server \"b\" has taken \
         over (it ended the run as interrupted): it is refused, nothing was written"
    );
    assert_eq!(store.events("r-own", 0).await.unwrap().len(), 1);
    assert!(
        store
            .run("r-own")
            .await
            .unwrap()
            .unwrap()
            .finished_at_ms
            .is_none()
    );
    assert_eq!(
        store.task_run_events(&task_run.id, 0).await.unwrap().len(),
        1
    );
    // the new owner writes
    let b = store.fenced(Fence {
        server: "b".into(),
        device: "local".into(),
        epoch: None,
    });
    b.finish_run(
        "r-own",
        DoneStatus::Failed,
        "interrupted",
        &usage(0, 0, 0),
        9_000,
    )
    .await
    .unwrap();
    b.finish_task_run(
        &task_run.id,
        deft_store::TaskRunStatus::Interrupted,
        None,
        9_000,
    )
    .await
    .unwrap();
}
