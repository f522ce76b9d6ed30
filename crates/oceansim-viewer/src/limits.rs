//! The viewer's limits and defaults, each a bound a page or a socket
//! cannot pass.

/// The default address of `--viewer`.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
/// Most frames a second a publisher sends (wall time).
pub const DEFAULT_MAX_FPS: f64 = 30.0;

/// The range [`ViewerConfig::max_fps`](crate::ViewerConfig::max_fps) is clamped to (frames a second).
pub const MAX_FPS_RANGE: std::ops::RangeInclusive<f64> = 1.0..=120.0;
/// Requests from pages waiting for the simulation, over all pages; more
/// are answered "busy".
pub const MAX_PENDING_REQUESTS: usize = 64;
/// Longest message a page may send (bytes); longer ones close its socket.
pub const MAX_PAGE_MESSAGE_BYTES: usize = 64 << 10;
/// Most pages connected at once; more are answered 503.
pub const MAX_PAGES: usize = 32;
/// How long a page may take to accept one message before it is dropped;
/// also how long any of the viewer's sockets may leave the bytes waiting
/// for it untaken before it is closed.
pub const PAGE_SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Most sockets the viewer has open at once, pages' WebSockets included;
/// past it a connection is closed as soon as it is accepted (and counted,
/// [`Viewer::refused_connections`](crate::Viewer::refused_connections)).
pub const MAX_CONNECTIONS: usize = 128;
/// How long a connection may take to send a request's headers, counted
/// from when it opened or finished its previous response: a client that
/// sends half a header, or an idle keep-alive connection, is closed then.
pub const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// Longest request head (request line and headers, bytes); longer ones
/// are answered 431 and closed.
pub const MAX_REQUEST_HEAD_BYTES: usize = 64 << 10;
/// Most bytes waiting to be sent to one page (its replies to pings
/// included); a message that would pass it closes the page. Far above the
/// largest message a page is sent: a shipped map's scene is ~180 KB, the
/// page's own occupancy grid well under 1 MB.
pub const MAX_PAGE_UNSENT_BYTES: usize = 8 << 20;
/// The protocol actions a page may send: its controls, and the occupancy
/// grid it draws. Anything else is refused, so a page can watch and pause
/// the simulator but not drive it.
pub const PAGE_ACTIONS: &[&str] = &["pause", "resume", "set_time_scale", "get_terrain_grid"];
/// Most panels one page may show at once (sensor keys it subscribes to).
pub const MAX_PANELS_PER_PAGE: usize = 64;
/// Longest sensor key a page may name (bytes).
pub const MAX_SENSOR_KEY_BYTES: usize = 256;
