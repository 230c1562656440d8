-- rocpd 4.1.0 schema for dcutop's tests: see SOURCE.txt (tables and view columns follow
-- rocprofiler-sdk-rocpd versions/4.1.0; written for the tests, not copied).
CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL);
INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '4.1.0');
CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, string TEXT NOT NULL);
CREATE TABLE rocpd_info_node(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, hash BIGINT,
  machine_id TEXT, name TEXT, system_name TEXT, hostname TEXT, release TEXT, version TEXT,
  hardware_name TEXT, domain_name TEXT);
CREATE TABLE rocpd_info_process(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER,
  ppid INTEGER, pid INTEGER, name TEXT, init BIGINT, fini BIGINT, start BIGINT, end BIGINT,
  command TEXT, environment JSONB, extdata JSONB);
CREATE TABLE rocpd_info_thread(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER,
  ppid INTEGER, pid INTEGER, tid INTEGER, name TEXT, start BIGINT, end BIGINT, extdata JSONB);
CREATE TABLE rocpd_info_category(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, name TEXT NOT NULL,
  extdata JSONB);
CREATE TABLE rocpd_info_agent(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER,
  pid INTEGER, type TEXT, absolute_index INTEGER, logical_index INTEGER, type_index INTEGER,
  uuid INTEGER, name TEXT, generic_name TEXT, model_name TEXT, vendor_name TEXT,
  product_name TEXT, extdata JSONB);
CREATE TABLE rocpd_info_queue(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER,
  pid INTEGER, name TEXT, extdata JSONB);
CREATE TABLE rocpd_info_stream(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER,
  pid INTEGER, name TEXT, extdata JSONB);
CREATE TABLE rocpd_info_pmc(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER,
  pid INTEGER, agent_id INTEGER, target_arch TEXT, event_code INT, instance_id INTEGER,
  name TEXT NOT NULL, symbol TEXT NOT NULL, qualifier TEXT, description TEXT,
  long_description TEXT, component TEXT, units TEXT, value_type TEXT, block TEXT,
  expression TEXT, is_constant INTEGER, is_derived INTEGER, extdata JSONB);
CREATE TABLE rocpd_info_code_object(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER,
  pid INTEGER, agent_id INTEGER, uri TEXT, load_base BIGINT, load_size BIGINT,
  load_delta BIGINT, storage_type TEXT, extdata JSONB);
CREATE TABLE rocpd_info_kernel_symbol(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER,
  pid INTEGER, code_object_id INTEGER, kernel_name TEXT, display_name TEXT,
  kernel_object INTEGER, kernarg_segment_size INTEGER, kernarg_segment_alignment INTEGER,
  group_segment_size INTEGER, private_segment_size INTEGER, sgpr_count INTEGER,
  arch_vgpr_count INTEGER, accum_vgpr_count INTEGER, extdata JSONB);
CREATE TABLE rocpd_track(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, nid INTEGER, ppid INTEGER,
  pid INTEGER, tid INTEGER, agent_id INTEGER, queue_id INTEGER, stream_id INTEGER,
  name_id INTEGER, extdata JSONB);
CREATE TABLE rocpd_event(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, category_id INTEGER,
  stack_id INTEGER, parent_stack_id INTEGER, correlation_id INTEGER, extdata JSONB);
CREATE TABLE rocpd_pmc_event(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, event_id INTEGER,
  pmc_id INTEGER NOT NULL, value REAL, extdata JSONB);
CREATE TABLE rocpd_region(id INTEGER PRIMARY KEY, guid TEXT NOT NULL, track_id INTEGER NOT NULL,
  name_id INTEGER NOT NULL, start BIGINT NOT NULL, end BIGINT NOT NULL, event_id INTEGER,
  extdata JSONB);
CREATE TABLE rocpd_kernel_dispatch(id INTEGER PRIMARY KEY, guid TEXT NOT NULL,
  track_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL, dispatch_id INTEGER NOT NULL,
  start BIGINT NOT NULL, end BIGINT NOT NULL, private_segment_size INTEGER,
  group_segment_size INTEGER, workgroup_size_x INTEGER NOT NULL,
  workgroup_size_y INTEGER NOT NULL, workgroup_size_z INTEGER NOT NULL,
  grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL, grid_size_z INTEGER NOT NULL,
  region_name_id INTEGER, event_id INTEGER, extdata JSONB);
CREATE TABLE rocpd_memory_copy(id INTEGER PRIMARY KEY, guid TEXT NOT NULL,
  track_id INTEGER NOT NULL, start BIGINT NOT NULL, end BIGINT NOT NULL,
  name_id INTEGER NOT NULL, dst_agent_id INTEGER, dst_address INTEGER, src_agent_id INTEGER,
  src_address INTEGER, size INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER,
  extdata JSONB);
CREATE TABLE rocpd_memory_allocate(id INTEGER PRIMARY KEY, guid TEXT NOT NULL,
  track_id INTEGER NOT NULL, type TEXT, level TEXT, start BIGINT NOT NULL, end BIGINT NOT NULL,
  name_id INTEGER NOT NULL, address INTEGER, size INTEGER NOT NULL, region_name_id INTEGER,
  event_id INTEGER, extdata JSONB);

-- views: 4.1.0's output columns
CREATE VIEW tracks AS
SELECT T.id, T.guid, T.nid, T.pid, P.command AS process_command, T.tid, T.agent_id,
  A.name AS agent_name, A.type AS agent_type, A.absolute_index AS agent_absolute_index,
  A.logical_index AS agent_logical_index, A.type_index AS agent_type_index, T.queue_id,
  Q.name AS queue_name, T.stream_id, S.name AS stream_name
FROM rocpd_track T
  LEFT JOIN rocpd_info_process P ON P.pid = T.pid AND P.guid = T.guid
  LEFT JOIN rocpd_info_agent A ON A.id = T.agent_id AND A.guid = T.guid
  LEFT JOIN rocpd_info_queue Q ON Q.id = T.queue_id AND Q.guid = T.guid
  LEFT JOIN rocpd_info_stream S ON S.id = T.stream_id AND S.guid = T.guid;

CREATE VIEW events AS
SELECT E.id, E.guid, E.category_id,
  (SELECT name FROM rocpd_info_category C WHERE C.id = E.category_id AND C.guid = E.guid)
    AS category,
  E.stack_id, E.parent_stack_id, E.correlation_id, E.extdata
FROM rocpd_event E;

CREATE VIEW processes AS
SELECT P.id, P.nid, P.guid, P.ppid, P.pid, P.init, P.start, P.end, P.fini, P.command
FROM rocpd_info_process P;

CREATE VIEW regions AS
SELECT R.id, R.guid, E.category, NS.string AS name, T.nid, T.pid, T.tid, R.start, R.end,
  R.end - R.start AS duration, R.event_id, R.track_id, E.stack_id, E.parent_stack_id,
  E.correlation_id, E.extdata
FROM rocpd_region R
  JOIN events E ON E.id = R.event_id AND E.guid = R.guid
  JOIN tracks T ON T.id = R.track_id AND T.guid = R.guid
  JOIN rocpd_string NS ON NS.id = R.name_id AND NS.guid = R.guid;

CREATE VIEW kernels AS
SELECT K.id, K.guid, T.nid, T.pid, T.tid, E.category, R.string AS region,
  S.display_name AS name, T.agent_id, T.agent_absolute_index, T.agent_logical_index,
  T.agent_type_index, T.agent_type, S.code_object_id, K.kernel_id, K.dispatch_id, T.queue_id,
  T.queue_name AS queue, T.stream_id, T.stream_name AS stream, K.start, K.end,
  K.end - K.start AS duration, K.event_id, K.track_id,
  K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z,
  K.grid_size_x * K.grid_size_y * K.grid_size_z AS ocl_grid_size,
  K.workgroup_size_x AS workgroup_x, K.workgroup_size_y AS workgroup_y,
  K.workgroup_size_z AS workgroup_z,
  K.workgroup_size_x * K.workgroup_size_y * K.workgroup_size_z AS ocl_workgroup_size,
  K.workgroup_size_x * K.workgroup_size_y * K.workgroup_size_z AS block_size,
  K.grid_size_x / K.workgroup_size_x AS grid_size_x,
  K.grid_size_y / K.workgroup_size_y AS grid_size_y,
  K.grid_size_z / K.workgroup_size_z AS grid_size_z,
  (K.grid_size_x / K.workgroup_size_x) * (K.grid_size_y / K.workgroup_size_y)
    * (K.grid_size_z / K.workgroup_size_z) AS grid_size,
  ((K.group_segment_size + 511) / 512) * 512 AS lds_block_size,
  K.private_segment_size AS scratch_size, S.group_segment_size AS static_lds_block_size,
  S.private_segment_size AS static_scratch_size, S.sgpr_count, S.arch_vgpr_count,
  S.accum_vgpr_count, E.stack_id, E.parent_stack_id, E.correlation_id, E.extdata
FROM rocpd_kernel_dispatch K
  JOIN tracks T ON T.id = K.track_id AND T.guid = K.guid
  JOIN events E ON E.id = K.event_id AND E.guid = K.guid
  JOIN rocpd_string R ON R.id = K.region_name_id AND R.guid = K.guid
  JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid;

CREATE VIEW pmc_events AS
SELECT PE.id, PE.guid, PE.pmc_id, PE.event_id, E.category_id, E.category, PI.name, PI.symbol,
  PE.value, PI.agent_id, PI.units, PI.value_type, PI.block, PI.expression, PI.is_constant,
  PI.is_derived, PI.description
FROM rocpd_pmc_event PE
  JOIN rocpd_info_pmc PI ON PI.id = PE.pmc_id AND PI.guid = PE.guid
  JOIN events E ON E.id = PE.event_id AND E.guid = PE.guid;

CREATE VIEW memory_copies AS
SELECT M.id, M.guid, T.nid, T.pid, T.tid, E.id AS event_id, E.category, NS.string AS name,
  R.string AS region_name, M.start, M.end, M.end - M.start AS duration, T.queue_id,
  T.queue_name, T.stream_id, T.stream_name, M.size, DA.name AS dst_device,
  DA.id AS dst_agent_id, DA.absolute_index AS dst_agent_absolute_index, M.dst_address,
  SA.name AS src_device, SA.id AS src_agent_id, SA.absolute_index AS src_agent_absolute_index,
  M.src_address, E.stack_id, E.parent_stack_id, E.correlation_id, E.extdata
FROM rocpd_memory_copy M
  JOIN events E ON E.id = M.event_id AND E.guid = M.guid
  JOIN tracks T ON T.id = M.track_id AND T.guid = M.guid
  JOIN rocpd_string NS ON NS.id = M.name_id AND NS.guid = M.guid
  LEFT JOIN rocpd_string R ON R.id = M.region_name_id AND R.guid = M.guid
  JOIN rocpd_info_agent DA ON DA.id = M.dst_agent_id AND DA.guid = M.guid
  JOIN rocpd_info_agent SA ON SA.id = M.src_agent_id AND SA.guid = M.guid;

CREATE VIEW memory_allocations AS
SELECT M.id, M.guid, T.nid, T.pid, T.tid, E.id AS event_id, E.category, NS.string AS name,
  M.start, M.end, M.end - M.start AS duration, T.queue_id, T.stream_id, M.size, M.type,
  M.level, T.agent_name, T.agent_absolute_index, T.agent_type, M.address, E.correlation_id
FROM rocpd_memory_allocate M
  JOIN events E ON E.id = M.event_id AND E.guid = M.guid
  JOIN tracks T ON T.id = M.track_id AND T.guid = M.guid
  JOIN rocpd_string NS ON NS.id = M.name_id AND NS.guid = M.guid;

CREATE VIEW kernel_pmc_events AS
SELECT K.id, K.guid, K.pid, K.tid, K.name, K.agent_absolute_index, K.dispatch_id, K.start,
  K.end, K.event_id, K.correlation_id, E.pmc_id, E.name AS pmc_name, E.symbol AS pmc_symbol,
  E.value AS pmc_value, E.units AS pmc_units
FROM kernels K JOIN pmc_events E ON E.event_id = K.event_id;
