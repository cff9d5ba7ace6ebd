# Keep-alive slots: Julia values that C code can still reach (a Julia callback behind an
# `ffi.Function`, a Julia array behind an `ffi.Tensor`).
#
# C never holds a pointer to a Julia object. It holds a *cell*: a small block of C memory
# (`Libc.malloc`) that stores the slot id (an integer index into `_SLOTS`) and a "released" mark.
# When the C object dies, its deleter only sets the mark: the deleters are functions of the native
# shim (shim.jl, `tvmffi_julia_cell_deleter` for callbacks, `tvmffi_julia_dlpack_deleter` for
# tensors), so no Julia code runs and the last reference may be dropped on any thread, inside a
# finalizer or at exit. Normal Julia code sweeps marked cells and frees their slots (amortized, when
# new slots are made, and on `sweep_keepalive!()`); freeing the slot of a kept array also ends the
# protection of its memory (kept.jl).

const _CELL_SIZE = 64
const _CELL_ID_OFFSET = 32
const _CELL_FLAG_OFFSET = 40    # the shim's CELL_FLAG_OFFSET

mutable struct _SlotTable
    values::Vector{Any}
    cells::Vector{Ptr{Cvoid}}   # C_NULL for a free slot
    free::Vector{Int}
    live::Int
    sweep_at::Int
end

const _SLOTS = _SlotTable(Any[], Ptr{Cvoid}[], Int[], 0, 64)
const _SLOT_LOCK = ReentrantLock()

# An atomic load of the mark, in the shim (the deleter stores it from any thread).
_cell_released(cell::Ptr{Cvoid}) = ccall(_shim_cell_released[], Cint, (Ptr{Cvoid},), cell) != 0

_cell_free(cell::Ptr{Cvoid}) = Libc.free(cell)

@inline _cell_id(cell::Ptr{Cvoid}) = unsafe_load(Ptr{Int64}(cell + _CELL_ID_OFFSET))

function _sweep_locked!(t::_SlotTable)
    freed = 0
    @inbounds for id in eachindex(t.cells)
        cell = t.cells[id]
        cell == C_NULL && continue
        if _cell_released(cell)
            _cell_free(cell)
            t.cells[id] = C_NULL
            _unkeep(t.values[id])
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
        _unkeep(t.values[id])
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
