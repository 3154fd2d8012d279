//! Why an action was refused.

use thiserror::Error;

/// An action the rules do not allow now; the game is left exactly as it was.
///
/// Every variant has a stable machine-readable [`code`](RuleError::code) that goes on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
pub enum RuleError {
    /// The game has ended; nothing more can be played.
    #[error("the game is over")]
    GameOver,
    /// A roll or move by the player who is not to act.
    #[error("it is not your turn")]
    NotYourTurn,
    /// A move while the player to act still has to roll.
    #[error("roll the die before choosing a plane")]
    RollFirst,
    /// A roll while a plane choice for the previous roll is pending.
    #[error("choose a plane for the pending roll before rolling again")]
    MoveFirst,
    /// A plane that may not move for the pending roll.
    #[error("that plane cannot move for the pending roll")]
    IllegalPlane,
    /// Accept, decline or withdraw with no standing draw offer.
    #[error("there is no standing draw offer")]
    NoOffer,
    /// A draw offer while another one stands.
    #[error("a draw offer is already standing")]
    OfferPending,
    /// A repeated draw offer before a turn of the opponent has ended since the last one.
    #[error("you may offer a draw again only after your opponent's turn has ended")]
    OfferTooSoon,
    /// Accepting or declining one's own offer.
    #[error("only the player who received the draw offer may accept or decline it")]
    NotOfferReceiver,
    /// Withdrawing the opponent's offer.
    #[error("only the player who made the draw offer may withdraw it")]
    NotOfferOwner,
}

impl RuleError {
    /// The stable machine-readable code of this error, e.g. `not_your_turn`.
    pub const fn code(self) -> &'static str {
        match self {
            RuleError::GameOver => "game_over",
            RuleError::NotYourTurn => "not_your_turn",
            RuleError::RollFirst => "roll_first",
            RuleError::MoveFirst => "move_first",
            RuleError::IllegalPlane => "illegal_plane",
            RuleError::NoOffer => "no_offer",
            RuleError::OfferPending => "offer_pending",
            RuleError::OfferTooSoon => "offer_too_soon",
            RuleError::NotOfferReceiver => "not_offer_receiver",
            RuleError::NotOfferOwner => "not_offer_owner",
        }
    }

    /// Every error, for documentation and exhaustive tests.
    pub const ALL: [RuleError; 10] = [
        RuleError::GameOver,
        RuleError::NotYourTurn,
        RuleError::RollFirst,
        RuleError::MoveFirst,
        RuleError::IllegalPlane,
        RuleError::NoOffer,
        RuleError::OfferPending,
        RuleError::OfferTooSoon,
        RuleError::NotOfferReceiver,
        RuleError::NotOfferOwner,
    ];
}
