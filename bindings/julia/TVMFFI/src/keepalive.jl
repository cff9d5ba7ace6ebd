# Keep-alive slots: Julia values that C code can still reach (a Julia callback behind an
# `ffi.Function`, a Julia array behind an `ffi.Tensor`).
#
# C never holds a pointer to a Julia object. It holds a *cell*: a small block of C memory
# (`Libc.malloc`) that stores the slot id (an integer index into `_SLOTS`) and a "released" mark.
# When the C object dies, its deleter only marks the cell:
# - for callbacks on Linux the deleter *is* libc's `sem_post` on a POSIX semaphore inside the cell:
#   no Julia code runs, so the last reference may be dropped on any thread, inside a finalizer or
#   at exit;
# - for tensors (and callbacks elsewhere) the deleter is a tiny Julia function that marks the cell
#   without allocating or locking, so it is safe inside finalizers.
# No Julia data structure is ever touched from a deleter. Normal Julia code sweeps marked cells
# and frees their slots (amortized, when new slots are made, and on `sweep_keepalive!()`).

const _CELL_SIZE = 64
const _CELL_ID_OFFSET = 32      # after a 32-byte sem_t
const _CELL_FLAG_OFFSET = 40
const _USE_SEMAPHORE = Sys.islinux()

mutable struct _SlotTable
    values::Vector{Any}
    cells::Vector{Ptr{Cvoid}}   # C_NULL for a free slot
    free::Vector{Int}
    live::Int
    sweep_at::Int
end

const _SLOTS = _SlotTable(Any[], Ptr{Cvoid}[], Int[], 0, 64)
const _SLOT_LOCK = ReentrantLock()

# Deleter of callback Functions: `sem_post` (Linux) or `_cell_mark_released` (set in __init__).
const _CELL_DELETER = Ref{Ptr{Cvoid}}(C_NULL)

function _cell_mark_released(cell::Ptr{Cvoid})
    if _USE_SEMAPHORE
        ccall(:sem_post, Cint, (Ptr{Cvoid},), cell)
    else
        unsafe_store!(Ptr{UInt64}(cell + _CELL_FLAG_OFFSET), UInt64(1))
    end
    return nothing
end

function _cell_released(cell::Ptr{Cvoid})
    if _USE_SEMAPHORE
        return ccall(:sem_trywait, Cint, (Ptr{Cvoid},), cell) == 0
    else
        return unsafe_load(Ptr{UInt64}(cell + _CELL_FLAG_OFFSET)) != 0
    end
end

function _cell_free(cell::Ptr{Cvoid})
    _USE_SEMAPHORE && ccall(:sem_destroy, Cint, (Ptr{Cvoid},), cell)
    Libc.free(cell)
    return nothing
end

@inline _cell_id(cell::Ptr{Cvoid}) = unsafe_load(Ptr{Int64}(cell + _CELL_ID_OFFSET))

function _sweep_locked!(t::_SlotTable)
    freed = 0
    @inbounds for id in eachindex(t.cells)
        cell = t.cells[id]
        cell == C_NULL && continue
        if _cell_released(cell)
            _cell_free(cell)
            t.cells[id] = C_NULL
            t.values[id] = nothing
            push!(t.free, id)
            t.live -= 1
            freed += 1
        end
    end
    return freed
end

# Puts `value` in a new slot and returns its cell (C memory, valid until the slot is swept).
function _slot_new(@nospecialize(value))
    cell = Libc.malloc(_CELL_SIZE)
    cell == C_NULL && throw(OutOfMemoryError())
    ccall(:memset, Ptr{Cvoid}, (Ptr{Cvoid}, Cint, Csize_t), cell, 0, _CELL_SIZE)
    if _USE_SEMAPHORE && ccall(:sem_init, Cint, (Ptr{Cvoid}, Cint, Cuint), cell, 0, 0) != 0
        Libc.free(cell)
        error("TVMFFI: sem_init failed: $(Libc.strerror())")
    end
    lock(_SLOT_LOCK)
    try
        t = _SLOTS
        if t.live + 1 >= t.sweep_at
            _sweep_locked!(t)
            t.sweep_at = max(64, 2 * (t.live + 1))
        end
        if isempty(t.free)
            push!(t.values, value)
            push!(t.cells, cell)
            id = length(t.values)
        else
            id = pop!(t.free)
            t.values[id] = value
            t.cells[id] = cell
        end
        t.live += 1
        unsafe_store!(Ptr{Int64}(cell + _CELL_ID_OFFSET), Int64(id))
    finally
        unlock(_SLOT_LOCK)
    end
    return cell
end

# The value kept in the slot of `cell`.
function _slot_value(cell::Ptr{Cvoid})
    id = _cell_id(cell)
    lock(_SLOT_LOCK)
    try
        return @inbounds _SLOTS.values[id]
    finally
        unlock(_SLOT_LOCK)
    end
end

# Frees a slot whose cell C never received (creation failed).
function _slot_discard(cell::Ptr{Cvoid})
    id = _cell_id(cell)
    lock(_SLOT_LOCK)
    try
        t = _SLOTS
        t.cells[id] = C_NULL
        t.values[id] = nothing
        push!(t.free, id)
        t.live -= 1
    finally
        unlock(_SLOT_LOCK)
    end
    _cell_free(cell)
    return nothing
end

"""
    sweep_keepalive!() -> Int

Free the keep-alive slots of Julia callbacks and arrays whose `ffi.Function` / `ffi.Tensor` the
runtime has released, and return how many were freed. This also happens automatically (amortized)
whenever new callbacks or tensors are made; call it to release those Julia values right away.
"""
function sweep_keepalive!()
    lock(_SLOT_LOCK)
    try
        return _sweep_locked!(_SLOTS)
    finally
        unlock(_SLOT_LOCK)
    end
end

"""
    keepalive_count() -> Int

How many Julia values (callbacks, arrays) are currently kept alive for C, including released ones
not yet swept (see [`sweep_keepalive!`](@ref)).
"""
keepalive_count() = lock(() -> _SLOTS.live, _SLOT_LOCK)
