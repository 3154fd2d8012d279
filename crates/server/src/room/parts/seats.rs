//! Who sits where and who is connected: the seats by colour and the room's connections.
//!
//! A seat belongs to a colour of the game and is keyed by it (not by position in an array), so
//! a room of more players needs no new shape. A connection joins as a player (taking a free seat,
//! or reclaiming one with its token) or as a spectator; the one player of a local room holds
//! every seat with one token and acts for whichever colour is to act. This part decides joining
//! and leaving and says which seats connected or disconnected; the room turns that into
//! presence events. It also holds the connections' outboxes, so it is where frames are sent.
//!
//! Just over 500 lines on purpose: the seats and the connections are one part because joining,
//! reclaiming, leaving and sending all touch both; the local room's shared seats, the seating
//! of 2 to 4 players and the seats' grace deadlines (with the earliest kept at hand) are a few
//! functions of it, not parts of their own: every change of a deadline comes from a seat being
//! taken, connected or left here.

use aeroplane_dice::ClientSeed;
use aeroplane_protocol::client::{Join, Role};
use aeroplane_protocol::error::{CloseCode, ErrorCode};
use aeroplane_protocol::name::PlayerName;
use aeroplane_protocol::server::ServerMessage;
use aeroplane_protocol::snapshot::{SeatView, Seats as SeatViews};
use aeroplane_rules::Side;
use tokio::time::Instant;
use uuid::Uuid;

use super::by_conn::ByConn;
use super::by_side::BySide;
use super::timeline::Refusal;
use crate::outgoing::{Frame, Outbox, SendError};
use crate::room::handle::ConnId;
use crate::token::SeatToken;

/// One taken seat.
#[derive(Debug)]
pub(in crate::room) struct Seat {
    /// The player's display name.
    pub(in crate::room) name: PlayerName,
    /// What the player presents to reclaim the seat.
    pub(in crate::room) token: SeatToken,
    /// The player's dice seed.
    pub(in crate::room) client_seed: ClientSeed,
    /// The identified player the seat is tied to (`None`: anonymous, or the computer).
    pub(in crate::room) player: Option<Uuid>,
    /// The seat's live connection, if any.
    pub(in crate::room) conn: Option<ConnId>,
    /// When the seat is forfeited if its player is still away (only while the game is live).
    /// Set only through [`Seats`], which keeps the earliest of them at hand.
    deadline: Option<Instant>,
}

impl Seat {
    /// When the seat is forfeited if its player is still away.
    pub(in crate::room) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// A seat taken by a player who has not connected yet.
    pub(in crate::room) fn new(
        name: PlayerName,
        token: SeatToken,
        client_seed: ClientSeed,
        player: Option<Uuid>,
    ) -> Seat {
        Seat {
            name,
            token,
            client_seed,
            player,
            conn: None,
            deadline: None,
        }
    }
}

/// What a joined connection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::room) enum Joined {
    /// A player; in a local room the one player, joined through Red's seat.
    Player(Side),
    /// A spectator.
    Spectator,
}

impl Joined {
    /// The wire role.
    pub(in crate::room) fn wire_role(self) -> Role {
        match self {
            Joined::Player(_) => Role::Player,
            Joined::Spectator => Role::Spectator,
        }
    }
}

/// One connection in the room.
#[derive(Debug)]
struct Conn {
    outbox: Outbox,
    /// `None` until the connection has joined.
    role: Option<Joined>,
}

/// The seats by colour and the connections.
#[derive(Debug)]
pub(in crate::room) struct Seats {
    /// The colours that play, in turn order.
    sides: &'static [Side],
    /// Room for exactly the colours that play (a `BTreeMap` node would hold eleven).
    seats: BySide<Seat>,
    /// The connections, the two of an ordinary room inline (see `by_conn.rs`).
    conns: ByConn<Conn>,
    /// Whether one player holds every seat (a local room).
    shared: bool,
    /// The earliest seat deadline, kept as deadlines change: the room asks for it after every
    /// command, and reading it off the seats was a cache miss per action at 1,000 rooms (issue
    /// 18, stop 36).
    earliest: Option<Instant>,
}

impl Seats {
    /// No seat of `sides` (the colours that play) taken yet; `shared` for a local room, whose
    /// one player holds every seat.
    pub(in crate::room) fn new(shared: bool, sides: &'static [Side]) -> Seats {
        Seats {
            sides,
            seats: BySide::with_capacity(sides.len()),
            conns: ByConn::default(),
            shared,
            earliest: None,
        }
    }

    /// The seat of `colour`.
    pub(in crate::room) fn get(&self, colour: Side) -> Option<&Seat> {
        self.seats.get(&colour)
    }

    /// Seats `colour` (a seat taken in advance, or restored).
    pub(in crate::room) fn put(&mut self, colour: Side, seat: Seat) {
        self.seats.insert(colour, seat);
        self.deadlines_changed();
    }

    /// The colours that play, in turn order.
    pub(in crate::room) fn sides(&self) -> &'static [Side] {
        self.sides
    }

    /// Whether every colour of the game has its seat.
    pub(in crate::room) fn all_taken(&self) -> bool {
        self.sides
            .iter()
            .all(|colour| self.seats.contains_key(colour))
    }

    /// The client seed of every colour that plays, in turn order.
    pub(in crate::room) fn client_seeds(&self) -> Vec<(Side, ClientSeed)> {
        self.sides
            .iter()
            .map(|side| (*side, self.client_seed(*side)))
            .collect()
    }

    /// Sets every taken seat's deadline to what `deadline` answers for it.
    pub(in crate::room) fn set_deadlines(
        &mut self,
        mut deadline: impl FnMut(Side, &Seat) -> Option<Instant>,
    ) {
        for (colour, seat) in self.seats.iter_mut() {
            seat.deadline = deadline(*colour, seat);
        }
        self.deadlines_changed();
    }

    /// The client seed of `colour` (empty for a seat never taken).
    pub(in crate::room) fn client_seed(&self, colour: Side) -> ClientSeed {
        self.get(colour)
            .map(|seat| seat.client_seed.clone())
            .unwrap_or_default()
    }

    /// The display name of `colour`'s seat (empty for a seat never taken).
    pub(in crate::room) fn name(&self, colour: Side) -> String {
        self.get(colour)
            .map(|seat| seat.name.to_string())
            .unwrap_or_default()
    }

    /// The seats as snapshots show them; a grace period is shown while `live`.
    pub(in crate::room) fn views(&self, live: bool) -> SeatViews {
        let now = Instant::now();
        let view = |colour: Side| {
            self.get(colour).map(|seat| SeatView {
                name: seat.name.to_string(),
                connected: seat.conn.is_some(),
                grace_ms: seat
                    .deadline
                    .filter(|_| live && seat.conn.is_none())
                    .map(|deadline| millis(deadline.saturating_duration_since(now))),
                player_id: seat.player,
            })
        };
        SeatViews {
            red: view(Side::Red),
            yellow: view(Side::Yellow),
            blue: view(Side::Blue),
            green: view(Side::Green),
        }
    }

    /// The role a connection joined with.
    pub(in crate::room) fn role_of(&self, conn: ConnId) -> Option<Joined> {
        self.conns.get(&conn).and_then(|conn| conn.role)
    }

    /// How many connections watch the room.
    pub(in crate::room) fn spectator_count(&self) -> u32 {
        u32::try_from(self.count(|role| role == Joined::Spectator)).unwrap_or(u32::MAX)
    }

    /// How many joined connections, but those `except` picks, have a role that `wanted` accepts.
    pub(in crate::room) fn count_except(
        &self,
        except: impl Fn(ConnId) -> bool,
        wanted: impl Fn(Joined) -> bool,
    ) -> usize {
        self.conns
            .iter()
            .filter(|(id, conn)| !except(**id) && conn.role.is_some_and(&wanted))
            .count()
    }

    fn count(&self, wanted: impl Fn(Joined) -> bool) -> usize {
        self.conns
            .values()
            .filter(|conn| conn.role.is_some_and(&wanted))
            .count()
    }

    /// The colours a joined connection plays: every colour for the player of a local room (who
    /// joins as Red's seat and acts for whichever colour is to act), one for any other player.
    pub(in crate::room) fn colours_of(&self, joined: Joined) -> Vec<Side> {
        match joined {
            Joined::Player(_) if self.shared => self.sides.to_vec(),
            Joined::Player(colour) => vec![colour],
            Joined::Spectator => Vec::new(),
        }
    }

    /// A WebSocket connected; it receives nothing until it joins.
    pub(in crate::room) fn connect(&mut self, conn: ConnId, outbox: Outbox) {
        self.conns.insert(conn, Conn { outbox, role: None });
    }

    /// Admits one more spectator, unless the room has `max` already.
    pub(in crate::room) fn admit_spectator(&self, max: usize) -> Result<Joined, Refusal> {
        if self.count(|role| role == Joined::Spectator) >= max {
            let message = format!("this room admits {max} spectators");
            return Err((ErrorCode::TooManySpectators, message));
        }
        Ok(Joined::Spectator)
    }

    /// The identified player of `colour`'s seat.
    pub(in crate::room) fn player(&self, colour: Side) -> Option<Uuid> {
        self.get(colour).and_then(|seat| seat.player)
    }

    /// Finds the seat a player's `join` asks for and takes it, or reclaims one by token. `open`
    /// says whether free seats may still be taken (not once the game is over). `player` is the
    /// identified player who joins (credentials already checked): a seat taken is tied to them;
    /// a seat reclaimed by token is tied to them if it was anonymous and `untied` (the game has
    /// not started: a started game's players are fixed), and refused (`bad_identity`) if it
    /// belongs to another player.
    pub(in crate::room) fn take(
        &mut self,
        join: &Join,
        open: bool,
        player: Option<Uuid>,
        untied: bool,
    ) -> Result<Joined, Refusal> {
        if let Some(presented) = &join.token {
            let (colour, holder) = self
                .seats
                .iter()
                .find(|(_, seat)| seat.token.matches(presented))
                .map(|(colour, seat)| (*colour, seat.player))
                .ok_or_else(|| {
                    let text = "the token matches no seat of this room";
                    (ErrorCode::BadToken, text.to_owned())
                })?;
            match (holder, player) {
                (Some(holder), Some(joiner)) if holder != joiner => {
                    let text = "this seat belongs to another player";
                    return Err((ErrorCode::BadIdentity, text.to_owned()));
                }
                (None, Some(joiner)) if untied => {
                    // Every seat of the token: a local room's player holds them all.
                    self.seats
                        .values_mut()
                        .filter(|seat| seat.token.matches(presented))
                        .for_each(|seat| seat.player = Some(joiner));
                }
                _ => {}
            }
            return Ok(Joined::Player(colour));
        }
        if !open {
            let text = "the game is over; watch instead";
            return Err((ErrorCode::RoomFull, text.to_owned()));
        }
        let name = PlayerName::parse(&join.name)
            .map_err(|error| (ErrorCode::BadField, error.to_string()))?;
        let client_seed = ClientSeed::new(join.client_seed.clone().unwrap_or_default())
            .map_err(|error| (ErrorCode::SeedTooLong, error.to_string()))?;
        if self.shared {
            return self.take_every_seat(name, &join.names, client_seed, player);
        }
        if !join.names.is_empty() {
            let text = "`names` names the seats of a local room only";
            return Err((ErrorCode::BadField, text.to_owned()));
        }
        let colour = match join.colour {
            Some(colour) if !self.sides.contains(&colour) => {
                let message = format!("{} does not play in this room", colour.as_str());
                return Err((ErrorCode::BadField, message));
            }
            Some(colour) if self.seats.contains_key(&colour) => {
                let message = format!("the {} seat is taken", colour.as_str());
                return Err((ErrorCode::SeatTaken, message));
            }
            Some(colour) => colour,
            None => self
                .sides
                .iter()
                .copied()
                .find(|colour| !self.seats.contains_key(colour))
                .ok_or_else(|| {
                    let text = "every seat is taken; watch instead";
                    (ErrorCode::RoomFull, text.to_owned())
                })?,
        };
        self.put(colour, Seat::new(name, new_token()?, client_seed, player));
        Ok(Joined::Player(colour))
    }

    /// A local room's one player takes every seat, with one token for all. The seats share the
    /// player's client seed; each takes its name from `names` (in turn order), or `name`.
    fn take_every_seat(
        &mut self,
        name: PlayerName,
        names: &[String],
        client_seed: ClientSeed,
        player: Option<Uuid>,
    ) -> Result<Joined, Refusal> {
        if !self.seats.is_empty() {
            let text = "this local room has its player; watch instead";
            return Err((ErrorCode::RoomFull, text.to_owned()));
        }
        if names.len() > self.sides.len() {
            let text = format!(
                "`names` has {} names for {} seats",
                names.len(),
                self.sides.len()
            );
            return Err((ErrorCode::BadField, text));
        }
        let names = names
            .iter()
            .map(|name| PlayerName::parse(name).map_err(|e| (ErrorCode::BadField, e.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        let token = new_token()?;
        for (index, colour) in self.sides.iter().enumerate() {
            let name = names.get(index).cloned().unwrap_or_else(|| name.clone());
            let seat = Seat::new(name, token.clone(), client_seed.clone(), player);
            self.put(*colour, seat);
        }
        Ok(Joined::Player(Side::Red))
    }

    /// Marks a connection joined with `joined`; false when it is gone.
    pub(in crate::room) fn joined(&mut self, conn: ConnId, joined: Joined) -> bool {
        let Some(target) = self.conns.get_mut(&conn) else {
            return false;
        };
        target.role = Some(joined);
        target.outbox.mark_joined();
        true
    }

    /// `conn` is now the live connection of these seats. Answers the seats that were not
    /// connected before (an older connection of a seat is replaced and closed, and the seat
    /// never looked disconnected to anyone).
    pub(in crate::room) fn seats_connected(
        &mut self,
        colours: &[Side],
        conn: ConnId,
    ) -> Vec<(Side, String)> {
        let mut connected = Vec::new();
        for colour in colours {
            let Some(seat) = self.seats.get_mut(colour) else {
                continue;
            };
            let previous = seat.conn.replace(conn);
            seat.deadline = None;
            match previous.filter(|old| *old != conn) {
                Some(old) => {
                    if let Some(old) = self.conns.remove(&old) {
                        old.outbox.close(CloseCode::Replaced);
                    }
                }
                None => connected.push((*colour, seat.name.to_string())),
            }
        }
        self.deadlines_changed();
        connected
    }

    /// Forgets a connection; answers how it had joined, if it had.
    pub(in crate::room) fn remove(&mut self, conn: ConnId) -> Option<Joined> {
        self.conns.remove(&conn).and_then(|gone| gone.role)
    }

    /// Frees the seat of `colour` from connection `conn`, holding it until `deadline` if given.
    /// False when `conn` was not that seat's live connection.
    pub(in crate::room) fn seat_left(
        &mut self,
        colour: Side,
        conn: ConnId,
        deadline: Option<Instant>,
    ) -> bool {
        let Some(seat) = self.seats.get_mut(&colour) else {
            return false;
        };
        if seat.conn != Some(conn) {
            return false;
        }
        seat.conn = None;
        if deadline.is_some() {
            seat.deadline = deadline;
            self.deadlines_changed();
        }
        true
    }

    /// The first seat whose player stayed away past its deadline.
    pub(in crate::room) fn expired(&self, now: Instant) -> Option<Side> {
        self.seats
            .iter()
            .find(|(_, seat)| seat.conn.is_none() && seat.deadline.is_some_and(|at| at <= now))
            .map(|(colour, _)| *colour)
    }

    /// Lifts the deadline of `colour`'s seat.
    pub(in crate::room) fn clear_deadline(&mut self, colour: Side) {
        if let Some(seat) = self.seats.get_mut(&colour) {
            seat.deadline = None;
        }
        self.deadlines_changed();
    }

    /// Lifts every seat's deadline.
    pub(in crate::room) fn clear_deadlines(&mut self) {
        self.seats
            .values_mut()
            .for_each(|seat| seat.deadline = None);
        self.earliest = None;
    }

    /// The earliest seat deadline.
    pub(in crate::room) fn next_deadline(&self) -> Option<Instant> {
        self.earliest
    }

    /// Finds the earliest deadline again after one changed (rarely: a player comes or goes).
    fn deadlines_changed(&mut self) {
        self.earliest = self.seats.values().filter_map(|seat| seat.deadline).min();
    }

    /// Sends one encoded frame to every joined connection; answers the connections that could
    /// not take it (too slow or gone), which the room then drops.
    pub(in crate::room) fn send_all(&self, frame: &Frame, failed: &mut Vec<(ConnId, SendError)>) {
        for (id, conn) in self.conns.iter() {
            if conn.role.is_none() || failed.iter().any(|(gone, _)| gone == id) {
                continue;
            }
            if let Err(error) = conn.outbox.send_frame(frame) {
                failed.push((*id, error));
            }
        }
    }

    /// Sends one message to one connection.
    pub(in crate::room) fn send(
        &self,
        conn: ConnId,
        message: &ServerMessage,
    ) -> Result<(), SendError> {
        match self.conns.get(&conn) {
            Some(target) => target.outbox.send(message),
            None => Ok(()),
        }
    }

    /// The spectators' connections.
    pub(in crate::room) fn spectators(&self) -> Vec<ConnId> {
        self.conns
            .iter()
            .filter(|(_, conn)| conn.role == Some(Joined::Spectator))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Closes one connection's socket with `code` (it then disconnects by itself).
    pub(in crate::room) fn close(&self, conn: ConnId, code: CloseCode) {
        if let Some(target) = self.conns.get(&conn) {
            target.outbox.close(code);
        }
    }

    /// Writes every connection's queued frames to its socket (once per command: all of the
    /// command's frames for one connection leave in one write).
    pub(in crate::room) fn flush_all(&self) {
        for conn in self.conns.values() {
            conn.outbox.flush();
        }
    }

    /// Closes every connection's socket with `code` (the room is closing).
    pub(in crate::room) fn close_all(&self, code: CloseCode) {
        for conn in self.conns.values() {
            conn.outbox.close(code);
        }
    }
}

/// A new seat token; no entropy is an internal error.
fn new_token() -> Result<SeatToken, Refusal> {
    SeatToken::generate().map_err(|error| {
        tracing::error!(error = %error, "no entropy for a seat token");
        let text = "the server could not make a seat token";
        (ErrorCode::Internal, text.to_owned())
    })
}

/// A duration in whole milliseconds, as the wire carries it.
pub(in crate::room) fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
